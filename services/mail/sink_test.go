package mail_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-smtp"

	"seatflow/services/mail"
)

// sink is an in-process SMTP server that keeps what it accepts. The first failFirst
// messages are refused at the end of DATA with failCode (451: try again later; 550:
// never).
type sink struct {
	addr string
	mu   sync.Mutex
	got  []*received
	// refused counts the messages refused; failFirst and failCode set the refusals.
	refused   int
	failFirst int
	failCode  int
}

// received is one accepted message, parsed.
type received struct {
	MessageID, Subject, To string
	RawSubject             string // the Subject header as it arrived, before decoding
	Text, HTML             string
	Images                 map[string][]byte // Content-ID (no brackets) -> decoded bytes
}

func newSink(t *testing.T) *sink {
	t.Helper()
	s := &sink{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &sinkSession{s: s}, nil }))
	srv.Domain = "sink.test"
	srv.AllowInsecureAuth = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// sender returns an SMTP sender to the sink (no TLS).
func (s *sink) sender(t *testing.T) *mail.SMTPSender {
	t.Helper()
	cfg, err := mail.ParseSMTPURL("smtp://" + s.addr + "?tls=none")
	if err != nil {
		t.Fatal(err)
	}
	return mail.NewSMTPSender(cfg)
}

func (s *sink) messages() []*received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*received(nil), s.got...)
}

type sinkSession struct {
	s  *sink
	to string
}

func (ss *sinkSession) Reset()                                    {}
func (ss *sinkSession) Logout() error                             { return nil }
func (ss *sinkSession) Mail(string, *smtp.MailOptions) error      { return nil }
func (ss *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error { ss.to = to; return nil }

func (ss *sinkSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s := ss.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refused < s.failFirst {
		s.refused++
		return &smtp.SMTPError{Code: s.failCode, EnhancedCode: smtp.EnhancedCode{s.failCode / 100, 0, 0}, Message: "refused by the test"}
	}
	m, err := parseMessage(raw)
	if err != nil {
		return err
	}
	m.To = ss.to
	s.got = append(s.got, m)
	return nil
}

// parseMessage reads a MIME message: its headers, text and HTML parts and inline
// images.
func parseMessage(raw []byte) (*received, error) {
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		return nil, err
	}
	m := &received{MessageID: msg.Header.Get("Message-Id"), Subject: subject, RawSubject: msg.Header.Get("Subject"), Images: map[string][]byte{}}
	return m, walkPart(m, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Header.Get("Content-Id"), msg.Body)
}

func walkPart(m *received, ctype, enc, cid string, body io.Reader) error {
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		return err
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := walkPart(m, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p.Header.Get("Content-Id"), p); err != nil {
				return err
			}
		}
	}
	var r io.Reader = body
	switch strings.ToLower(enc) {
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, body)
	case "quoted-printable":
		r = quotedPrintable(body)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	switch mt {
	case "text/plain":
		m.Text = string(b)
	case "text/html":
		m.HTML = string(b)
	default:
		m.Images[strings.Trim(cid, "<>")] = b
	}
	return nil
}

func quotedPrintable(r io.Reader) io.Reader { return quotedprintable.NewReader(r) }
