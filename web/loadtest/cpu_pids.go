package loadtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"seatflow/services/store"
)

// Program names (/proc/<pid>/comm) a MariaDB or Redis pid must have to be measured: a
// pid from a store in another container or on another host names some other process.
var (
	mariadbComms = []string{"mariadbd", "mysqld"}
	redisComms   = []string{"redis-server", "valkey-server", "keydb-server"}
)

// findCPUProcs finds, once before the first phase, the processes whose CPU time every
// phase measures: the server is Options.PID (the server the tool started, or -pid; 0:
// not measured), MariaDB the pid in the file @@pid_file names (else the only process
// named mariadbd or mysqld), Redis the process_id of INFO server, the client this
// process. It returns the meter and a note naming each pid or why it is missing.
func (r *run) findCPUProcs(ctx context.Context) (*cpuMeter, string) {
	m := &cpuMeter{pids: map[string]int{ProcClient: 0}}
	var notes []string
	self := os.Getpid()
	switch pid := r.opts.PID; {
	case pid == self:
		m.pids[ProcServer] = pid
		notes = append(notes, fmt.Sprintf("server pid %d (this process: its figures include the client's)", pid))
	case pid > 0:
		m.pids[ProcServer] = pid
		notes = append(notes, fmt.Sprintf("server pid %d", pid))
	default:
		notes = append(notes, "server not measured (-base without -pid)")
	}
	if pid, from := r.mariadbPID(ctx); pid > 0 {
		m.pids[ProcMariaDB] = pid
		notes = append(notes, fmt.Sprintf("MariaDB pid %d (%s)", pid, from))
	} else {
		notes = append(notes, "MariaDB not measured ("+from+")")
	}
	if pid, from := r.redisPID(ctx); pid > 0 {
		m.pids[ProcRedis] = pid
		notes = append(notes, fmt.Sprintf("Redis pid %d (%s)", pid, from))
	} else {
		notes = append(notes, "Redis not measured ("+from+")")
	}
	notes = append(notes, fmt.Sprintf("client pid %d", self))
	return m, strings.Join(notes, ", ")
}

// mariadbPID returns MariaDB's pid and where it was found, or 0 and why not.
func (r *run) mariadbPID(ctx context.Context) (int, string) {
	if pidFile, datadir, err := store.LoadTestServerFiles(ctx, r.db); err == nil && pidFile.String != "" {
		path := pidFile.String
		if !filepath.IsAbs(path) {
			path = filepath.Join(datadir.String, path)
		}
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && commIs(pid, mariadbComms) {
				return pid, path
			}
		}
	}
	pids := procsNamed(mariadbComms)
	if len(pids) == 1 {
		return pids[0], "the only mariadbd or mysqld in /proc"
	}
	return 0, fmt.Sprintf("@@pid_file unreadable, %d processes named mariadbd or mysqld", len(pids))
}

// redisPID returns the pid INFO server reports when it is a Redis of this machine, or 0
// and why not.
func (r *run) redisPID(ctx context.Context) (int, string) {
	info, err := r.rdb.Info(ctx, "server").Result()
	if err != nil {
		return 0, "INFO server: " + err.Error()
	}
	pid, err := strconv.Atoi(infoField(info, "process_id"))
	if err != nil {
		return 0, "no process_id in INFO server"
	}
	if !commIs(pid, redisComms) {
		return 0, fmt.Sprintf("INFO server's process_id %d is no redis-server of this machine", pid)
	}
	return pid, "INFO server"
}

// infoField returns the value of field name in a Redis INFO answer ("" when absent).
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}

// commIs reports whether process pid's /proc/<pid>/comm is one of names.
func commIs(pid int, names []string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return err == nil && slices.Contains(names, strings.TrimSpace(string(b)))
}

// procsNamed returns the pids whose /proc/<pid>/comm is one of names.
func procsNamed(names []string) []int {
	dirs, _ := os.ReadDir("/proc")
	var out []int
	for _, d := range dirs {
		if pid, err := strconv.Atoi(d.Name()); err == nil && commIs(pid, names) {
			out = append(out, pid)
		}
	}
	return out
}
