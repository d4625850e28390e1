package store

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// Querier is what every storage function runs its SQL on: the pool (*sqlx.DB) or one
// transaction (*sqlx.Tx), so that a caller decides which statements commit together.
type Querier interface {
	sqlx.ExtContext
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
}

var (
	_ Querier = (*sqlx.DB)(nil)
	_ Querier = (*sqlx.Tx)(nil)
)
