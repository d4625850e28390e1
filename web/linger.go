package web

import (
	"io"
	"net"
	"time"
)

// lingerFor and lingerBytes bound how long and how much a closing connection keeps
// reading what the client still sends.
const (
	lingerFor   = 2 * time.Second
	lingerBytes = 8 << 20
)

// lingeringListener wraps a listener so that a connection the server closes while the
// client is still sending (a body over the limit, refused with 413 before it was read)
// first says it is done writing, then reads and drops what arrives for a moment before
// it closes. Closing at once, with unread data, sends a TCP reset, which can destroy the
// 413 answer in the client's buffer before the client reads it.
type lingeringListener struct{ net.Listener }

// Lingering returns ln with lingering close on every accepted TCP connection.
func Lingering(ln net.Listener) net.Listener { return lingeringListener{ln} }

// Accept wraps TCP connections; others are returned as they are.
func (l lingeringListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && err == nil {
		return &lingeringConn{TCPConn: tc}, nil
	}
	return c, err
}

type lingeringConn struct{ *net.TCPConn }

// Close ends the writing side now (the client sees the answer and then the end of it)
// and closes the connection in the background once the client stopped sending, or
// after lingerFor or lingerBytes.
func (c *lingeringConn) Close() error {
	if err := c.TCPConn.CloseWrite(); err != nil {
		return c.TCPConn.Close()
	}
	go func() {
		_ = c.TCPConn.SetReadDeadline(time.Now().Add(lingerFor))
		_, _ = io.CopyN(io.Discard, c.TCPConn, lingerBytes)
		_ = c.TCPConn.Close()
	}()
	return nil
}
