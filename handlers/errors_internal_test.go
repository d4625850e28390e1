package handlers

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"seatflow/services"
)

// An INTERNAL error from a service is a 500 in the contract's shape, and it is logged
// with its cause; UNAVAILABLE stays 503.
func TestInternalServiceErrorIsLogged500(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(prev)

	cases := []struct {
		name      string
		err       *services.Error
		status    int
		logged    string
		logAbsent string
	}{
		{"statement fault", &services.Error{Code: services.CodeInternal, Message: "something went wrong", Err: errors.New("Error 1292: Incorrect datetime value")},
			500, "level=ERROR msg=\"internal error\"", ""},
		{"lost connection", &services.Error{Code: services.CodeUnavailable, Message: "the database is unavailable", Err: errors.New("invalid connection")},
			503, "level=WARN msg=unavailable", "level=ERROR"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			buf.Reset()
			st, se := asError(c.err)
			if st != c.status || se.Code != c.err.Code {
				t.Fatalf("asError = %d %s, want %d %s", st, se.Code, c.status, c.err.Code)
			}
			out := buf.String()
			if !strings.Contains(out, c.logged) || !strings.Contains(out, c.err.Err.Error()) {
				t.Fatalf("log %q lacks %q with the cause", out, c.logged)
			}
			if c.logAbsent != "" && strings.Contains(out, c.logAbsent) {
				t.Fatalf("log %q should not hold %q", out, c.logAbsent)
			}
		})
	}
}
