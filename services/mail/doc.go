// Package mail holds the e-mails seatflow owes people: the outbox in MySQL (Queue,
// written in the transaction of the event it tells of), their bodies in the reader's
// language, and their delivery over SMTP.
//
// It owns the mail_outbox table and users.lang. It imports services and store.
package mail
