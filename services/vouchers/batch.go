package vouchers

import (
	"context"
	"crypto/rand"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// MaxBatch is the most codes one batch makes; MaxBatchName the longest batch name
// (characters); batchSuffix the random characters after PREFIX-.
const (
	MaxBatch     = 1000
	MaxBatchName = 100
	batchSuffix  = 6
)

// codeAlphabet leaves out 0/O and 1/I, which people misread off a printed code.
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// BatchInput is a batch of codes PREFIX-XXXXXX (XXXXXX random): Count of them (1..
// MaxBatch), named Name (1..MaxBatchName characters), each with Input's rules (Input.Code
// unused; MaxUses 0 means single-use).
type BatchInput struct {
	Prefix string
	Count  int
	Name   string
	Input
}

// CreateBatch stores in.Count new vouchers in one transaction, audited as one
// "voucher.batch", and returns them. Errors: INVALID_REQUEST, FORBIDDEN, NOT_FOUND,
// CONFLICT (the batch name is taken), UNAVAILABLE.
func (s *Vouchers) CreateBatch(ctx context.Context, actorID int64, in BatchInput) ([]*services.Voucher, error) {
	prefix, ok := services.CanonicalVoucherCode(in.Prefix + "-" + strings.Repeat("A", batchSuffix))
	if !ok || strings.TrimSpace(in.Prefix) == "" {
		return nil, invalid("prefix must be 1 to %d characters of A-Z, 0-9 and -", 32-1-batchSuffix)
	}
	prefix = prefix[:len(prefix)-batchSuffix]
	if in.Count < 1 || in.Count > MaxBatch {
		return nil, invalid("count must be a whole number from 1 to %d", MaxBatch)
	}
	name := strings.TrimSpace(in.Name)
	if name == "" || utf8.RuneCountInString(name) > MaxBatchName {
		return nil, invalid("batch must be 1 to %d characters", MaxBatchName)
	}
	if err := services.CheckText("batch", name, services.SingleLine); err != nil {
		return nil, err
	}
	if in.MaxUses == 0 {
		in.MaxUses = 1
	}
	proto, err := s.newVoucher(ctx, in.Input)
	if err != nil {
		return nil, err
	}
	proto.Batch = name
	if err := s.checkLimits(ctx, proto); err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, 4*store.DBTimeout)
	defer cancel()
	var vs []*services.Voucher
	for attempt := 0; ; attempt++ {
		vs = make([]*services.Voucher, 0, in.Count)
		for _, c := range randomCodes(prefix, in.Count) {
			v := *proto
			v.Code = c
			vs = append(vs, &v)
		}
		err = store.InTx(tctx, s.db, func(tx *sqlx.Tx) error {
			taken, err := store.VouchersOfBatch(tctx, tx, nil, name, 1)
			if err != nil {
				return err
			}
			if len(taken) > 0 {
				return services.Errorf(services.CodeConflict, "a batch named %s exists", strconv.Quote(name))
			}
			if err := store.InsertVoucherBatch(tctx, tx, vs); err != nil {
				return err
			}
			return s.audit.Record(tctx, tx, actorID, "voucher.batch", "voucher_batch", name, nil,
				map[string]any{"prefix": strings.TrimSuffix(prefix, "-"), "count": in.Count, "rules": auditOf(proto)})
		})
		// a random code that another voucher has: draw the batch again
		if attempt < 3 && store.DuplicateOn(err, store.VoucherCodeIndex) {
			continue
		}
		break
	}
	if err != nil {
		return nil, writeError(err, prefix)
	}
	return vs, nil
}

// randomCodes returns n distinct codes prefix + batchSuffix characters of codeAlphabet
// from crypto/rand.
func randomCodes(prefix string, n int) []string {
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	buf := make([]byte, batchSuffix)
	for len(out) < n {
		_, _ = rand.Read(buf) // never fails (crypto/rand's contract since Go 1.24)
		b := []byte(prefix)
		for _, x := range buf {
			b = append(b, codeAlphabet[int(x)%len(codeAlphabet)])
		}
		if c := string(b); !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}
