package mail

import (
	"strconv"
	"strings"

	"golang.org/x/text/currency"
)

// money formats an amount in minor units of an ISO 4217 currency for a reader:
// "¥45.00", "$1,234.50", "GBP 12.00", "JPY 4,500". The number of decimals is the
// currency's (x/text's CLDR data); the symbol is used for CNY, USD and EUR only.
func money(minor int64, code string) string {
	code = strings.ToUpper(code)
	scale := 2
	if u, err := currency.ParseISO(code); err == nil {
		scale, _ = currency.Standard.Rounding(u)
	}
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	div := int64(1)
	for i := 0; i < scale; i++ {
		div *= 10
	}
	amount := group(minor / div)
	if scale > 0 {
		frac := strconv.FormatInt(minor%div, 10)
		amount += "." + strings.Repeat("0", scale-len(frac)) + frac
	}
	if sym, ok := map[string]string{"CNY": "¥", "USD": "$", "EUR": "€"}[code]; ok {
		return sign + sym + amount
	}
	return sign + code + " " + amount
}

// group writes n with a comma every three digits.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
