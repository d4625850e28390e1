package loadtest

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestOrderBody(t *testing.T) {
	cases := []struct {
		name  string
		seats []int64
		zone  string
		q     int
		want  string
	}{
		{"chosen seats as strings", []int64{101, 102}, "", 0, `{"seat_ids":["101","102"]}`},
		{"best available", nil, "standard", 3, `{"zone":"standard","quantity":3}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := string(orderBody(c.seats, c.zone, c.q)); got != c.want {
				t.Fatalf("%s, want %s", got, c.want)
			}
		})
	}
}

// row makes one row of seats at the given columns (ids 100+col).
func row(r int, cols ...int) []SeatInfo {
	var out []SeatInfo
	for _, c := range cols {
		out = append(out, SeatInfo{ID: int64(100*r + c), Row: r, Col: c, Zone: zoneStandard})
	}
	return out
}

func TestV1BestAvailable(t *testing.T) {
	rows := [][]SeatInfo{row(1, 1, 2, 3, 5, 6), row(2, 1, 2, 3, 4)}
	state := map[string]string{"101": "F", "102": "F", "103": "H|X|1", "105": "F", "106": "F", "201": "F", "202": "F", "203": "F", "204": "S|Y|2"}
	cases := []struct {
		name string
		q    int
		want string
	}{
		{"first pair in row 1", 2, "101,102"},
		{"three side by side only in row 2", 3, "201,202,203"},
		{"an aisle gap breaks a block", 4, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ids []string
			for _, s := range v1BestAvailable(state, rows, c.q) {
				ids = append(ids, strconv.FormatInt(s.ID, 10))
			}
			if got := strings.Join(ids, ","); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestNewSale_BlocksStayInOneRowAndCoverEverySeat(t *testing.T) {
	h := &Hall{Seats: append(row(1, 1, 2, 3, 4, 5, 6), row(2, 1, 2, 3)...)}
	s := newSale(1, h, 2)
	seen := map[int64]bool{}
	for _, b := range s.blocks {
		if len(b) > 4 || len(b) == 0 {
			t.Fatalf("block of %d seats", len(b))
		}
		for _, st := range b {
			if st.Row != b[0].Row {
				t.Fatalf("block crosses rows: %+v", b)
			}
			seen[st.ID] = true
		}
	}
	if len(seen) != len(h.Seats) {
		t.Fatalf("blocks cover %d of %d seats", len(seen), len(h.Seats))
	}
}

func TestReadVmRSS(t *testing.T) {
	kb, err := readVmRSS("/proc/self/status")
	if err != nil || kb <= 0 {
		t.Fatalf("own RSS %d KiB, %v", kb, err)
	}
	if _, err := readVmRSS("/proc/self/cmdline"); err == nil {
		t.Fatal("a file without VmRSS must be an error")
	}
}

func TestServerEnv_ReplacesSeatflowVariables(t *testing.T) {
	t.Setenv("SEATFLOW_RATE_USER_BURST", "1")
	t.Setenv("SEATFLOW_MYSQL_DSN", "root@tcp(db)/seatflow")
	env := strings.Join(serverEnv(Options{MySQLDSN: "root@tcp(x)/seatflow_loadtest", RedisAddr: "r:1", RedisDB: 9, KeyPrefix: "sf", Currency: "CNY"}, "127.0.0.1:5"), "\n")
	for _, want := range []string{"SEATFLOW_MYSQL_DSN=root@tcp(x)/seatflow_loadtest", "SEATFLOW_HTTP_ADDR=127.0.0.1:5", "SEATFLOW_DEMO_PAYMENTS=true",
		"SEATFLOW_RATE_USER_BURST=100000000", "SEATFLOW_REDIS_DB=9"} {
		if !strings.Contains(env, want) {
			t.Errorf("env lacks %s", want)
		}
	}
	if strings.Contains(env, "SEATFLOW_RATE_USER_BURST=1\n") || strings.Contains(env, "tcp(db)") {
		t.Error("the caller's SEATFLOW_* variables must not reach the server")
	}
}

func TestStartServer_RefusesToDropAnotherDatabase(t *testing.T) {
	_, err := startServer(context.Background(), Options{Executable: os.Args[0], MySQLDSN: "root@tcp(127.0.0.1:3306)/seatflow"}, t.Logf)
	if err == nil || !strings.Contains(err.Error(), "seatflow_loadtest") {
		t.Fatalf("err %v, want a refusal naming seatflow_loadtest", err)
	}
}
