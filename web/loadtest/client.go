package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Client is the one HTTP client of a run: the HTTP no-op ceiling and every scenario use
// it, with one kept-alive connection per load client.
type Client struct {
	base string
	hc   *http.Client
}

// NewClient returns a client for the server at base (e.g. "http://127.0.0.1:8080")
// with up to conns idle connections kept alive.
func NewClient(base string, conns int) *Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns * 2,
		MaxIdleConnsPerHost: conns * 2,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &Client{base: base, hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// Close closes the client's idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// Answer is what one request got: the HTTP status, the error code of a non-2xx body,
// the body size in bytes and the body itself when the caller asked to keep it.
type Answer struct {
	Status int
	Code   string
	Bytes  int
	Body   []byte
	// Wire is the answer's bytes as they crossed the wire: the status line, the headers
	// and the body (as HTTP/1.1 writes them).
	Wire int
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Do sends one request (body nil: none) with an optional bearer token and
// Idempotency-Key, reads the whole answer and decodes the error code of a non-2xx
// answer. keep keeps the body in Answer.Body. Errors are transport errors only.
func (c *Client) Do(ctx context.Context, method, path, token, idemKey string, body []byte, keep bool) (Answer, error) {
	return c.DoAdmitted(ctx, method, path, token, idemKey, "", body, keep)
}

// DoAdmitted is Do with an Admission-Token header (admission "": none), as a buyer the
// show's waiting room admitted sends orders.
func (c *Client) DoAdmitted(ctx context.Context, method, path, token, idemKey, admission string, body []byte, keep bool) (Answer, error) {
	return c.DoHeader(ctx, method, path, token, idemKey, "Admission-Token", admission, body, keep)
}

// DoHeader is Do with one more header, name: value (value "": none).
func (c *Client) DoHeader(ctx context.Context, method, path, token, idemKey, name, value string, body []byte, keep bool) (Answer, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return Answer{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	if value != "" {
		req.Header.Set(name, value)
	}
	return c.send(req, keep)
}

// GetGzip sends a GET that accepts a gzipped answer, as browsers do. The answer is
// read whole but not inflated (Answer.Bytes counts what crossed the wire): the load
// test measures the server, and the client shares its CPU.
func (c *Client) GetGzip(ctx context.Context, path string) (Answer, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+path, nil)
	if err != nil {
		return Answer{}, err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	return c.send(req, false)
}

func (c *Client) send(req *http.Request, keep bool) (Answer, error) {
	resp, err := c.hc.Do(req)
	if err != nil {
		return Answer{}, err
	}
	defer resp.Body.Close()
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	n, err := buf.ReadFrom(resp.Body)
	if err != nil {
		return Answer{}, err
	}
	a := Answer{Status: resp.StatusCode, Bytes: int(n), Wire: int(n) + len("HTTP/1.1 200 OK\r\n\r\n")}
	for k, vs := range resp.Header {
		for _, v := range vs {
			a.Wire += len(k) + len(v) + 4 // "k: v\r\n"
		}
	}
	if keep || resp.StatusCode >= 300 {
		a.Body = bytes.Clone(buf.Bytes())
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Error struct{ Code string } `json:"error"`
		}
		if json.Unmarshal(a.Body, &e) == nil && e.Error.Code != "" {
			a.Code = e.Error.Code
		} else {
			a.Code = "HTTP_" + strconv.Itoa(resp.StatusCode)
		}
	}
	return a, nil
}

// JSON sends a JSON request and decodes a 2xx answer into out (nil: ignore); a non-2xx
// answer is an error naming its status and body.
func (c *Client) JSON(ctx context.Context, method, path, token string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	a, err := c.Do(ctx, method, path, token, "", body, true)
	if err != nil {
		return err
	}
	if a.Status >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, a.Status, bytes.TrimSpace(a.Body))
	}
	if out != nil {
		return json.Unmarshal(a.Body, out)
	}
	return nil
}

// orderBody returns the JSON body of an order of chosen seats ({"seat_ids":[...]}) or,
// with seats empty, of best-available seats ({"zone":..,"quantity":..}).
func orderBody(seats []int64, zone string, quantity int) []byte {
	b := make([]byte, 0, 64)
	if len(seats) > 0 {
		b = append(b, `{"seat_ids":[`...)
		for i, id := range seats {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = strconv.AppendInt(b, id, 10)
			b = append(b, '"')
		}
		return append(b, "]}"...)
	}
	b = append(b, `{"zone":"`...)
	b = append(b, zone...)
	b = append(b, `","quantity":`...)
	b = strconv.AppendInt(b, int64(quantity), 10)
	return append(b, '}')
}
