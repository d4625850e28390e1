// Package jobs holds seatflow's background work:
//   - expiry.go: the asynq task that expires an unpaid order at its deadline
//     (ExpiryQueue enqueues, finds and removes it; NewMux runs it), and
//     expiry_inspect.go, what the expiry queue holds, for the staff console;
//   - mail.go: the asynq task that delivers one e-mail of the outbox (MailQueue
//     enqueues it with an id from the row's, HandleMail runs mail.Deliverer) and the
//     worker's retry delays (RetryDelay);
//   - scheduler.go: the robfig/cron Scheduler of each process, with its jobs:
//     reconciliation (reconcile.go), the seat-sync retries, and the loading of seat
//     maps ahead of a sale (publish.go), and the roll-up of past days' sales for
//     the reports (sales_rollup.go).
//
// Of seatflow's packages it imports only reconcile (the run's options and report):
// what it needs of orders, the catalog and mail it declares as small interfaces
// (Expirer, SeatSyncer, Publisher, SalesRoller, MailDeliverer) that web passes the services to.
package jobs
