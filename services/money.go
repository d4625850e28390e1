package services

import (
	"strconv"
	"strings"

	"golang.org/x/text/currency"
)

// Money formats an amount in minor units for people: "¥45.00" (CNY), "$1,234.50"
// (USD), "€0.05" (EUR), "£12.00" (GBP); any other currency as its code and the amount ("CHF 12.00",
// "JPY 4,500" for currencies without minor units). The pages and the e-mails both
// write money with it.
func Money(minor int64, currency string) string {
	sign := ""
	if minor < 0 {
		sign = "-"
		minor = -minor
	}
	prefix, decimals := MoneyParts(currency)
	amount := Thousands(uint64(minor))
	if decimals == 2 {
		amount = Thousands(uint64(minor)/100) + "." + strconv.FormatUint(uint64(minor)%100/10, 10) + strconv.FormatUint(uint64(minor)%10, 10)
	}
	return sign + prefix + amount
}

// MoneyParts is how Money writes a currency, for scripts that format totals the same
// way: the prefix before the amount ("¥", "CHF ", "" without a currency) and the number
// of decimals (0 or 2).
func MoneyParts(currency string) (prefix string, decimals int) {
	code := strings.ToUpper(currency)
	decimals = 2
	if zeroDecimal[code] {
		decimals = 0
	}
	if sym, ok := moneySymbol[code]; ok {
		return sym, decimals
	}
	if code == "" {
		return "", decimals
	}
	return code + " ", decimals
}

var moneySymbol = map[string]string{"CNY": "¥", "USD": "$", "EUR": "€", "GBP": "£"}

// zeroDecimal are ISO 4217 currencies whose minor unit is the unit itself.
var zeroDecimal = map[string]bool{"JPY": true, "KRW": true, "VND": true, "CLP": true, "ISK": true, "UGX": true}

// Thousands writes n with a comma every three digits: "1,234,567".
func Thousands(n uint64) string {
	s := strconv.FormatUint(n, 10)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	first := len(s) % 3
	if first > 0 {
		b.WriteString(s[:first])
	}
	for i := first; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// notMoney are the ISO 4217 codes that name no legal tender: precious metals (XAU, XAG,
// XPD, XPT), fund and settlement units (XDR, XSU, XUA, XBA..XBD), the test code XTS and
// "no currency" XXX. golang.org/x/text/currency parses them like any other code.
var notMoney = map[string]bool{
	"XAG": true, "XAU": true, "XPD": true, "XPT": true,
	"XBA": true, "XBB": true, "XBC": true, "XBD": true,
	"XDR": true, "XSU": true, "XUA": true, "XTS": true, "XXX": true,
}

// CheckCurrency returns INVALID_REQUEST unless code is an ISO 4217 currency code in upper
// case ("GBP", "CNY") that is legal tender somewhere: golang.org/x/text/currency knows
// the list, and the codes of metals, funds, tests and "no currency" (notMoney) are refused.
func CheckCurrency(code string) error {
	if len(code) != 3 || strings.ToUpper(code) != code {
		return Errorf(CodeInvalidRequest, "currency %q must be an ISO 4217 code in capitals, such as GBP", code)
	}
	if notMoney[code] {
		return Errorf(CodeInvalidRequest, "currency %q is not money people pay with: use a legal tender such as GBP", code)
	}
	if _, err := currency.ParseISO(code); err != nil {
		return Errorf(CodeInvalidRequest, "currency %q is not an ISO 4217 code", code)
	}
	return nil
}
