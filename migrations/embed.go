// Package migrations holds the goose SQL migrations of seatflow, embedded in the binary.
package migrations

import "embed"

// FS holds every *.sql migration; goose reads it with goose.NewProvider.
//
//go:embed *.sql
var FS embed.FS
