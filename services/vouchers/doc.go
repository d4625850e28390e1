// Package vouchers keeps the staff side of promo codes (API.md "Vouchers (promo
// codes)"): creating one or a batch, changing and ending them, listing them with their
// uses, orders and revenue, and the buyer's preview of what a code saves before booking.
// Each write is audited (invariant 11) in the transaction that makes it. Limited staff
// (services.CinemaScopeOf) see and change only their cinemas' vouchers.
//
// The order path prices orders with a voucher and counts its uses (services/orders); this
// package never changes uses. Its SQL is in services/store (vouchers.go, voucher_uses.go).
package vouchers
