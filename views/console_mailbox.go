package views

import "time"

// The statuses of an outbox row (the values of the mail package's Status* constants).
const (
	MailQueued  = "queued"
	MailSending = "sending"
	MailSent    = "sent"
	MailFailed  = "failed"
)

// MailRow is one e-mail of the outbox: its kind, addressee and language, what it is
// about (OrderNo, ShowID; nil when none), its delivery Status (Mail* constants), the
// attempts made, the last error (nil when none) and when it was created and sent (UTC).
type MailRow struct {
	ID            int64
	Kind          string
	UserID        *int64
	To            string
	Lang          string
	OrderNo       *string
	ShowID        *int64
	Status        string
	Attempts      int
	LastError     *string
	NextAttemptAt time.Time
	CreatedAt     time.Time
	SentAt        *time.Time
}

// MailRendered is an e-mail as the mailbox shows it (as sent, a reset link redacted):
// its subject, text and HTML bodies and its inline images.
type MailRendered struct {
	Subject string
	Text    string
	HTML    string
	Images  []MailImage
}

// MailImage is an inline image of an e-mail: its Content-ID, name and PNG bytes.
type MailImage struct {
	CID  string
	Name string
	PNG  []byte
}
