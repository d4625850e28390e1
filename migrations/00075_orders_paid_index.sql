-- +goose Up
-- Sales reports read the orders paid in a range of days (services/store/reports.go): by
-- paid_at, with the show, channel and currency the report groups by, so a week's report
-- reads that week's orders from the index alone (BENCHMARKS.md "Sales reports").
ALTER TABLE orders ADD KEY ix_orders_paid (paid_at, show_id, channel, currency);

-- +goose Down
ALTER TABLE orders DROP KEY ix_orders_paid;
