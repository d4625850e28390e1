package stripepay

import (
	"strings"

	"seatflow/services"
)

// Stripe's amounts are in each currency's smallest unit as Stripe counts it
// (docs.stripe.com/currencies), which is not always seatflow's minor unit
// (services.MoneyParts: 0 decimals for JPY and the like, else 2).
var (
	// zeroDecimal are the currencies Stripe counts in whole units.
	zeroDecimal = map[string]bool{"BIF": true, "CLP": true, "DJF": true, "GNF": true, "JPY": true, "KMF": true,
		"KRW": true, "MGA": true, "PYG": true, "RWF": true, "UGX": true, "VND": true, "VUV": true, "XAF": true,
		"XOF": true, "XPF": true}
	// threeDecimal are the currencies Stripe counts in thousandths (the last digit 0).
	threeDecimal = map[string]bool{"BHD": true, "JOD": true, "KWD": true, "OMR": true, "TND": true}
)

// stripeDecimals is how many decimals Stripe's amounts of currency have: 0, 2 or 3. ISK
// is 2 for Stripe (whole krónur only, so a multiple of 100), though seatflow counts it
// in whole krónur.
func stripeDecimals(currency string) int {
	c := strings.ToUpper(currency)
	switch {
	case zeroDecimal[c]:
		return 0
	case threeDecimal[c]:
		return 3
	}
	return 2
}

// ToStripe converts an amount in seatflow's minor units of currency to Stripe's
// (4500 CNY fen stay 4500, 4500 JPY stay 4500, 500 ISK become 50000, 1250 KWD
// hundredths become 12500). Errors: INVALID_REQUEST for an amount Stripe cannot say in
// whole units of its own (seatflow's 2 decimals of a currency Stripe counts whole, not
// a multiple of 100) or below 1.
func ToStripe(minor int64, currency string) (int64, error) {
	if minor < 1 {
		return 0, services.Errorf(services.CodeInvalidRequest, "amount %d is not positive", minor)
	}
	_, ours := services.MoneyParts(currency)
	theirs := stripeDecimals(currency)
	for ; theirs > ours; theirs-- {
		minor *= 10
	}
	for ; ours > theirs; ours-- {
		if minor%10 != 0 {
			return 0, services.Errorf(services.CodeInvalidRequest, "amount has fractions of a %s Stripe cannot charge", strings.ToUpper(currency))
		}
		minor /= 10
	}
	return minor, nil
}

// FromStripe converts an amount in Stripe's smallest unit of currency to seatflow's
// minor units; ok is false when it has a fraction seatflow does not count.
func FromStripe(amount int64, currency string) (minor int64, ok bool) {
	_, ours := services.MoneyParts(currency)
	theirs := stripeDecimals(currency)
	for ; ours > theirs; ours-- {
		amount *= 10
	}
	for ; theirs > ours; theirs-- {
		if amount%10 != 0 {
			return 0, false
		}
		amount /= 10
	}
	return amount, true
}
