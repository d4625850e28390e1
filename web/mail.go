package web

import (
	netmail "net/mail"
	"strings"

	"seatflow/jobs"
	"seatflow/services"
	"seatflow/services/mail"
)

// newMail builds the e-mail delivery (services/mail, DESIGN.md "E-mail"): the outbox,
// the renderer (reading orders and shows through the order service and the catalog),
// and either the SMTP deliverer with its dispatcher or, without SEATFLOW_SMTP_URL, a
// dispatcher that holds mails for the development mailbox. It returns the line that
// says where mails go.
func (a *App) newMail(clock services.Clock) (string, error) {
	outbox := mail.NewOutbox(a.DB, clock)
	renderer := &mail.Renderer{Orders: a.Orders, Shows: a.Catalog, Tickets: a.tickets, Secrets: a.mailSecrets,
		BaseURL: a.Cfg.PublicURL, Zone: a.Cfg.Location()}
	a.mailbox = &mail.Mailbox{Outbox: outbox, Renderer: renderer}
	if a.Cfg.SMTPURL == "" {
		a.Mail = mail.NewDispatcher(outbox, nil, 0, a.Log)
		return "no SMTP: mails are kept in the development mailbox at /admin/mailbox", nil
	}
	smtp, err := mail.ParseSMTPURL(a.Cfg.SMTPURL)
	if err != nil {
		return "", err
	}
	domain := "seatflow.invalid"
	if from, err := netmail.ParseAddress(a.Cfg.MailFrom); err == nil {
		if _, d, ok := strings.Cut(from.Address, "@"); ok {
			domain = d
		}
	}
	a.mailDeliverer = &mail.Deliverer{Outbox: outbox, Renderer: renderer, Sender: mail.NewSMTPSender(smtp),
		From: a.Cfg.MailFrom, Domain: domain, Clock: clock, Log: a.Log}
	a.Mail = mail.NewDispatcher(outbox, jobs.NewMailQueue(a.asynqClient), 0, a.Log)
	return "mails go to the SMTP server " + smtp.String(), nil
}
