// Package jobs holds seatflow's background work:
//   - expiry.go: the asynq task that expires an unpaid order at its deadline
//     (ExpiryQueue enqueues, finds and removes it; NewMux runs it), and
//     expiry_inspect.go, what the expiry queue holds, for the staff console;
//   - scheduler.go: the robfig/cron Scheduler of each process, with its jobs:
//     reconciliation (reconcile.go), the seat-sync retries, and the loading of seat
//     maps ahead of a sale (publish.go).
package jobs
