package services

import (
	"errors"
	"fmt"
)

// Error codes of the JSON contract (API.md). A service returns an *Error carrying one of
// these; handlers map the code to the HTTP status and the contract's error body.
const (
	CodeInvalidRequest      = "INVALID_REQUEST"
	CodeUnauthenticated     = "UNAUTHENTICATED"
	CodeForbidden           = "FORBIDDEN"
	CodeNotFound            = "NOT_FOUND"
	CodeSeatTaken           = "SEAT_TAKEN"
	CodeNoAdjacentSeats     = "NO_ADJACENT_SEATS"
	CodeSoldOut             = "SOLD_OUT"
	CodePriceChanged        = "PRICE_CHANGED"
	CodeOrderState          = "ORDER_STATE"
	CodeIdempotencyMismatch = "IDEMPOTENCY_MISMATCH"
	CodePayloadTooLarge     = "PAYLOAD_TOO_LARGE"
	CodeSeatNotInShow       = "SEAT_NOT_IN_SHOW"
	CodeLimitExceeded       = "LIMIT_EXCEEDED"
	CodeNotOnSale           = "NOT_ON_SALE"
	CodeRateLimited         = "RATE_LIMITED"
	CodeUnavailable         = "UNAVAILABLE"
	CodeConflict            = "CONFLICT"
	CodeNotAdmitted         = "NOT_ADMITTED"     // 403: the show's waiting room has not admitted the buyer
	CodeSingleSeatGap       = "SINGLE_SEAT_GAP"  // 409: the seats would leave a lone empty seat (Error.Seats names it)
	CodeAlreadyAdmitted     = "ALREADY_ADMITTED" // 409: the ticket was admitted at the door before (the message says when and by whom)
	CodeTicketNotValid      = "TICKET_NOT_VALID" // 409: a genuine ticket that admits nobody: its order is not paid, or its show was cancelled
	CodeWrongShow           = "WRONG_SHOW"       // 409: a ticket for another show than the door's (the message names it)
	// CodeTicketTypeNotOffered is 422: a seat's zone has no price for the ticket type
	// asked for (Error.Seats names the seats).
	CodeTicketTypeNotOffered = "TICKET_TYPE_NOT_OFFERED"
	// CodeVoucherInvalid is 422: an order's voucher code is unknown, not yet valid,
	// expired, inactive, of another cinema, covers none of the seats or has too few
	// uses left (the message says which).
	CodeVoucherInvalid = "VOUCHER_INVALID"
	// CodeResetTokenInvalid is 400: a password reset link that is unknown, used or
	// expired (one code for the three, so a link's state tells a guesser nothing).
	CodeResetTokenInvalid = "RESET_TOKEN_INVALID"
	// CodeInternal is a fault on the server's side that trying again will not fix (a
	// statement MySQL refuses, a row that does not scan): 500, and logged.
	CodeInternal = "INTERNAL"
)

// Error is a failure a client can act on: Code is one of the Code* constants, Message is
// for people, Seats names seat labels where the code is about seats, RetryAfterS is the
// wait in whole seconds for RATE_LIMITED.
type Error struct {
	Code        string
	Message     string
	Seats       []string
	RetryAfterS int
	Err         error // the underlying cause, for logs only
}

// Error returns the code, the message and the cause, for logs.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an *Error with a formatted message.
func Errorf(code, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// ErrorCode returns the contract code of err, or "" when err is not an *Error.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
