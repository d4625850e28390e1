package mail_test

import (
	"strings"
	"testing"

	"seatflow/services/mail"
)

// TestParseSMTPURL: SEATFLOW_SMTP_URL's forms, their defaults, and errors that name
// the fault without the password.
func TestParseSMTPURL(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"smtp://u:secret@mail.example:587", "mail.example:587 (tls=starttls) u", ""},
		{"smtp://mail.example", "mail.example:587 (tls=starttls) ", ""},
		{"smtp://mail.example:465", "mail.example:465 (tls=tls) ", ""},
		{"smtps://mail.example", "mail.example:465 (tls=tls) ", ""},
		{"smtp://127.0.0.1:2525?tls=none", "127.0.0.1:2525 (tls=none) ", ""},
		{"http://u:secret@mail.example", "", "scheme"},
		{"smtp://u:secret@mail.example?tls=maybe", "", "tls="},
		{"smtp://u:secret@mail.example:99999", "", "port"},
		{"smtp://", "", "no host"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			c, err := mail.ParseSMTPURL(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "secret") {
					t.Fatalf("error %v, want one naming %q without the password", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.String() + " " + c.Username; got != tc.want {
				t.Fatalf("%q, want %q", got, tc.want)
			}
		})
	}
}
