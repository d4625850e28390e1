// Package reports answers the manager's sales figures (API.md "Reports"): seats sold,
// list prices, voucher savings, refunds and net per local day, show, movie, ticket type
// or channel over a range of local dates, each cinema's dates in its own zone, and
// today's counter and online sales for the dashboard. A seat counts on the local day its
// order was paid, a refund on the local day it was given (its refunds row). Limited staff
// (services.CinemaScopeOf) see only their cinemas. A cinema's complete past local days
// are rolled up by the first report covering them and read from the rollup after
// (rollup.go, DESIGN.md "Sales rollup"). It imports services and store; its SQL is in
// services/store/reports.go and services/store/sales_rollup.go.
package reports
