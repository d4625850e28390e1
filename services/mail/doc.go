// Package mail holds the e-mails seatflow owes people: the outbox in MySQL (Queue,
// written in the transaction of the event it tells of), their bodies in the reader's
// language, and their delivery over SMTP.
//
//   - outbox.go: Queue and the kinds of e-mail; facts.go: Facts, the order and show as
//     the event's transaction saw them, stored with the row, and the Message-ID's
//     random part; secrets.go: Secrets, which seals a reset link for the outbox;
//   - rows.go: Outbox, the rows' reads and their conditional status changes (the claim);
//   - render.go, texts.go, templates/: Renderer writes a row's subject, text and HTML
//     (and the ticket's QR code) from its facts, the same bytes at every attempt;
//   - smtp.go: SEATFLOW_SMTP_URL and the go-mail sender; deliver.go: Deliverer, one
//     attempt of one row; dispatch.go: Dispatcher, which hands due rows to delivery
//     tasks, or holds them without SMTP; mailbox.go: the development mailbox.
//
// It keeps the mail_outbox table and users.lang (their SQL is in package store). It
// imports services and store only: it sits below orders, whose transactions call Queue.
// What it needs of orders, the catalog and tickets to write a body it declares as small
// interfaces (OrderSource, ShowSource, TicketSigner; the first two only for rows queued
// before facts were stored) that web passes orders.Orders, catalog.Catalog and
// orders.Tickets to; the asynq task lives in jobs (jobs/mail.go),
// which meets Enqueuer and calls Deliverer. DESIGN.md "E-mail" states the delivery
// guarantee.
package mail
