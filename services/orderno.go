package services

import (
	"crypto/rand"
	"encoding/binary"
	"strconv"
	"strings"
	"time"
)

// NewOrderNo returns a fresh order number: the creation time in milliseconds since the
// Unix epoch in base 36 (9 characters, upper case), then 6 random base-36 characters,
// e.g. "0MI8K2J3LQ2ZKX7". Reconciliation reads the creation time back with
// OrderNoTime to apply its grace period to holds whose order it cannot find.
func NewOrderNo(now time.Time) string {
	ts := strings.ToUpper(strconv.FormatInt(now.UnixMilli(), 36))
	for len(ts) < 9 {
		ts = "0" + ts
	}
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	// 36^6 values: the modulo's bias over 2^64 is below one in 8 billion
	r := strings.ToUpper(strconv.FormatUint(binary.LittleEndian.Uint64(b[:])%2176782336, 36))
	for len(r) < 6 {
		r = "0" + r
	}
	return ts + r
}

// OrderNoTime returns the creation time encoded in an order number (UTC), or false
// when orderNo is not of NewOrderNo's shape.
func OrderNoTime(orderNo string) (time.Time, bool) {
	if len(orderNo) != 15 {
		return time.Time{}, false
	}
	ms, err := strconv.ParseInt(strings.ToLower(orderNo[:9]), 36, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.UnixMilli(ms).UTC(), true
}
