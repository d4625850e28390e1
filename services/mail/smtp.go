package mail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"seatflow/services"
)

// Envelope is one e-mail to hand to the SMTP server: the rendered message and who it
// goes from and to. MessageID (without angle brackets) is the outbox row's, so a copy
// sent again after a crash carries the same Message-ID.
type Envelope struct {
	MessageID string
	From      string
	To        string
	Date      time.Time
	*Rendered
}

// Sender hands one e-mail to a mail server. An error means it may not have arrived;
// Permanent(err) tells whether trying again is pointless.
type Sender interface {
	Send(ctx context.Context, e *Envelope) error
}

// SMTPConfig is where e-mails go: SEATFLOW_SMTP_URL parsed by ParseSMTPURL.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string
	Password string
	// TLS is "starttls" (required), "tls" (implicit TLS, e.g. port 465) or "none".
	TLS string
	// Timeout bounds connecting and each SMTP exchange.
	Timeout time.Duration
}

// ParseSMTPURL reads smtp://user:pass@host:port?tls=starttls|tls|none (smtps:// means
// tls=tls). The port defaults to 587 (465 for tls); tls defaults to starttls (tls for
// port 465). Errors name what is wrong, never the password.
func ParseSMTPURL(s string) (SMTPConfig, error) {
	u, err := url.Parse(s)
	if err != nil {
		return SMTPConfig{}, errors.New("SEATFLOW_SMTP_URL is not a URL")
	}
	c := SMTPConfig{Host: u.Hostname(), TLS: u.Query().Get("tls"), Timeout: 30 * time.Second}
	switch u.Scheme {
	case "smtp":
	case "smtps":
		if c.TLS == "" {
			c.TLS = "tls"
		}
	default:
		return SMTPConfig{}, fmt.Errorf("SEATFLOW_SMTP_URL: scheme %q is neither smtp nor smtps", u.Scheme)
	}
	if c.Host == "" {
		return SMTPConfig{}, errors.New("SEATFLOW_SMTP_URL has no host")
	}
	if p := u.Port(); p != "" {
		if c.Port, err = strconv.Atoi(p); err != nil || c.Port < 1 || c.Port > 65535 {
			return SMTPConfig{}, fmt.Errorf("SEATFLOW_SMTP_URL: port %q is not within 1..65535", p)
		}
	}
	if c.TLS == "" {
		c.TLS = "starttls"
		if c.Port == 465 {
			c.TLS = "tls"
		}
	}
	switch c.TLS {
	case "starttls", "none":
		if c.Port == 0 {
			c.Port = 587
		}
	case "tls":
		if c.Port == 0 {
			c.Port = 465
		}
	default:
		return SMTPConfig{}, fmt.Errorf("SEATFLOW_SMTP_URL: tls=%q is none of starttls, tls, none", c.TLS)
	}
	if u.User != nil {
		c.Username = u.User.Username()
		c.Password, _ = u.User.Password()
	}
	return c, nil
}

// String is the server as logs show it: host, port and TLS mode, no credentials.
func (c SMTPConfig) String() string {
	return c.Host + ":" + strconv.Itoa(c.Port) + " (tls=" + c.TLS + ")"
}

// SMTPSender sends each e-mail over its own connection to one SMTP server with
// github.com/wneessen/go-mail.
type SMTPSender struct{ cfg SMTPConfig }

// NewSMTPSender returns a sender to the server of cfg.
func NewSMTPSender(cfg SMTPConfig) *SMTPSender { return &SMTPSender{cfg: cfg} }

// Send writes e as a multipart/alternative message (text, then HTML with its inline
// images) with e's Message-ID and date, and delivers it. Errors: the server's (see
// Permanent) or the connection's.
func (s *SMTPSender) Send(ctx context.Context, e *Envelope) error {
	m := gomail.NewMsg()
	if err := m.From(e.From); err != nil {
		return permanent{fmt.Errorf("from address %q: %w", e.From, err)}
	}
	if err := m.To(e.To); err != nil {
		return permanent{fmt.Errorf("to address %q: %w", e.To, err)}
	}
	m.Subject(services.OneLine(e.Subject))
	m.SetMessageIDWithValue(e.MessageID)
	m.SetDateWithValue(e.Date)
	m.SetBodyString(gomail.TypeTextPlain, e.Text)
	m.AddAlternativeString(gomail.TypeTextHTML, e.HTML)
	for _, img := range e.Images {
		if err := m.EmbedReader(img.Name, bytes.NewReader(img.PNG), gomail.WithFileContentID(img.CID),
			gomail.WithFileContentType("image/png")); err != nil {
			return err
		}
	}
	opts := []gomail.Option{gomail.WithPort(s.cfg.Port), gomail.WithTimeout(s.cfg.Timeout)}
	switch s.cfg.TLS {
	case "tls":
		opts = append(opts, gomail.WithSSL())
	case "none":
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.cfg.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(s.cfg.Username), gomail.WithPassword(s.cfg.Password))
	}
	c, err := gomail.NewClient(s.cfg.Host, opts...)
	if err != nil {
		return permanent{err}
	}
	return c.DialAndSendWithContext(ctx, m)
}

// permanent marks an error that no retry can cure.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// Permanent reports whether err says the e-mail can never be sent as it is: a bad
// address, or an SMTP 5xx answer (a 4xx answer or a lost connection is worth a retry).
func Permanent(err error) bool {
	var p permanent
	if errors.As(err, &p) {
		return true
	}
	var se *gomail.SendError
	if errors.As(err, &se) {
		code := se.ErrorCode()
		return code >= 500 && code < 600
	}
	return false
}

// MessageID is the Message-ID (without angle brackets) of an outbox row whose random
// part (message_key, drawn when it was queued) is key, sent from domain:
// "<key>@<domain>". Every attempt of the row carries it, and no other row, database
// or installation draws the same key (128 random bits). A row without a key (none
// is written any more) falls back to "mail-<id>@<domain>".
func MessageID(key string, id int64, domain string) string {
	if domain == "" {
		domain = "seatflow.invalid"
	}
	if key == "" {
		key = "mail-" + strconv.FormatInt(id, 10)
	}
	return key + "@" + strings.ToLower(domain)
}

// RowMessageID is row's MessageID from domain.
func RowMessageID(row *Row, domain string) string {
	key := ""
	if row.MessageKey != nil {
		key = *row.MessageKey
	}
	return MessageID(key, row.ID, domain)
}
