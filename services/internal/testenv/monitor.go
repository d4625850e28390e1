package testenv

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Watched is one command Redis ran while Watch looked, as MONITOR reports it: its
// arguments (the command name first, as sent) and whether a script issued it.
type Watched struct {
	Args  []string
	ByLua bool
}

// Watch runs fn and returns every command Redis ran meanwhile on the env's Redis DB, in
// order, those scripts issued included (MONITOR; commands of other tests sharing the
// server are filtered out by DB, and callers filter by key). It fails t when the env's
// Redis is not a single node.
func (e *TestEnv) Watch(t testing.TB, fn func()) []Watched {
	t.Helper()
	c, ok := e.RDB.(*redis.Client)
	if !ok {
		t.Fatal("Watch needs a single Redis node")
	}
	opts := c.Options()
	conn, err := net.DialTimeout("tcp", opts.Addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	oks := 1 // MONITOR's, after AUTH's
	if opts.Password != "" {
		fmt.Fprintf(conn, "AUTH %s\r\n", opts.Password)
		oks++
	}
	fmt.Fprintf(conn, "MONITOR\r\n")
	lines := make(chan string, 1<<16)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(conn, 1<<16)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			lines <- strings.TrimSuffix(strings.TrimPrefix(l, "+"), "\r\n")
		}
	}()
	// MONITOR is on once its "OK" arrives
	for wait := time.After(5 * time.Second); ; {
		select {
		case l := <-lines:
			if l == "OK" {
				if oks--; oks == 0 {
					goto on
				}
			}
		case <-wait:
			t.Fatal("MONITOR did not start")
		}
	}
on:
	fn()
	mark := "watch-end-" + strconv.FormatInt(time.Now().UnixNano(), 10)
	if err := c.Echo(context.Background(), mark).Err(); err != nil {
		t.Fatal(err)
	}
	db := "[" + strconv.Itoa(opts.DB) + " "
	var out []Watched
	for wait := time.After(10 * time.Second); ; {
		select {
		case l := <-lines:
			if strings.Contains(l, `"`+mark+`"`) {
				return out
			}
			_, rest, ok := strings.Cut(l, " ")
			if !ok || !strings.HasPrefix(rest, db) {
				continue
			}
			src, cmd, ok := strings.Cut(rest[len(db):], "] ")
			if !ok {
				continue
			}
			out = append(out, Watched{Args: monitorArgs(cmd), ByLua: src == "lua"})
		case <-wait:
			t.Fatal("MONITOR lost its end mark")
		}
	}
}

// monitorArgs splits MONITOR's quoted arguments ("HGET" "k" "f"), unescaping \" and \\.
func monitorArgs(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			return out
		}
		s = s[i+1:]
		var b strings.Builder
		for len(s) > 0 && s[0] != '"' {
			if s[0] == '\\' && len(s) > 1 {
				s = s[1:]
			}
			b.WriteByte(s[0])
			s = s[1:]
		}
		out = append(out, b.String())
		if len(s) > 0 {
			s = s[1:]
		}
	}
}
