package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// freePort returns a loopback address nothing listens on (for now).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestStartup_WaitsForMySQL: start-up does not give up when MySQL is not there yet; it
// retries with back-off and goes on once MySQL answers (here after ~1.5 s).
func TestStartup_WaitsForMySQL(t *testing.T) {
	addr := freePort(t)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return
		}
		defer ln.Close()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", "127.0.0.1:3306")
				if err != nil {
					return
				}
				defer up.Close()
				go io.Copy(up, c)
				io.Copy(c, up)
			}()
		}
	}()
	cfg := testConfig()
	cfg.MySQLDSN = "root@tcp(" + addr + ")/seatflow_test_web"
	cfg.StartupTimeout = 20 * time.Second
	var logs syncBuffer
	start := time.Now()
	if err := WaitForStores(context.Background(), cfg, slog.New(slog.NewTextHandler(&logs, nil))); err != nil {
		t.Fatalf("start-up gave up: %v", err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("went on after %v, before MySQL could answer", waited)
	}
	if !strings.Contains(logs.String(), "waiting for mysql") {
		t.Errorf("no waiting line logged:\n%s", logs.String())
	}
}

// TestStartup_SecretsNeverLogged: when MySQL cannot be reached, neither the log lines,
// nor the error, nor the logged configuration show the DSN's password or the webhook
// secret.
func TestStartup_SecretsNeverLogged(t *testing.T) {
	const pw, hook = "Sup3rSecretPw", "whsec-Very-Secret-42"
	cfg := testConfig()
	cfg.MySQLDSN = fmt.Sprintf("seatflow:%s@tcp(%s)/seatflow", pw, freePort(t))
	cfg.PaymentWebhookSecret = hook
	cfg.StartupTimeout = 1500 * time.Millisecond
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	err := WaitForStores(context.Background(), cfg, log)
	if err == nil {
		t.Fatal("start-up succeeded with nothing listening")
	}
	log.Info("config", "cfg", cfg)
	for name, text := range map[string]string{"log": logs.String(), "error": err.Error()} {
		if strings.Contains(text, pw) || strings.Contains(text, hook) {
			t.Errorf("%s shows a secret:\n%s", name, text)
		}
	}
	if !strings.Contains(err.Error(), "seatflow:xxxxx@tcp(") {
		t.Errorf("error does not name the redacted address: %v", err)
	}
}

// TestStartup_WrongPasswordNotRetried: a refused password is told at once, not waited on.
func TestStartup_WrongPasswordNotRetried(t *testing.T) {
	cfg := testConfig()
	cfg.MySQLDSN = "root:wrong-password@tcp(127.0.0.1:3306)/seatflow_test_web"
	cfg.StartupTimeout = 30 * time.Second
	start := time.Now()
	err := WaitForStores(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "Access denied") {
		t.Fatalf("err = %v, want access denied", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %v: a wrong password was retried", time.Since(start))
	}
	if strings.Contains(err.Error(), "wrong-password") {
		t.Errorf("error shows the password: %v", err)
	}
}
