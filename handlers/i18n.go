package handlers

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/views"
)

// langOf is the language the request's page is rendered in (set by Lang; English for
// the console and the API).
func langOf(c *fiber.Ctx) views.Lang { return views.LangOf(c.UserContext()) }

// tr is the message id in the request's page language, with data filling its fields.
func tr(c *fiber.Ctx, id string, data views.D) string { return langOf(c).T(id, data) }

// serviceText words a service error for a page in l: English keeps en (the service's
// own message, as the caller shapes it); Chinese says what the error's code means,
// since the services speak English only.
func serviceText(l views.Lang, se *services.Error, en string) string {
	if !l.IsZh() {
		return en
	}
	if id, ok := serviceMessageID[se.Code]; ok {
		if se.Code == services.CodeSingleSeatGap && len(se.Seats) > 0 {
			return l.T(id, nil) + "（" + strings.Join(se.Seats, "、") + "）" // the seat left alone
		}
		return l.T(id, nil)
	}
	return l.T("svc.internal", nil)
}

// serviceMessageID maps a contract error code to its page message.
var serviceMessageID = map[string]string{
	services.CodeInvalidRequest:       "svc.invalid_request",
	services.CodeResetTokenInvalid:    "svc.reset_token_invalid",
	services.CodeUnauthenticated:      "svc.unauthenticated",
	services.CodeForbidden:            "svc.forbidden",
	services.CodeNotAdmitted:          "svc.not_admitted",
	services.CodeNotFound:             "svc.not_found",
	services.CodeSeatTaken:            "svc.seat_taken",
	services.CodeNoAdjacentSeats:      "svc.no_adjacent_seats",
	services.CodeSingleSeatGap:        "svc.single_seat_gap",
	services.CodeSoldOut:              "svc.sold_out",
	services.CodePriceChanged:         "svc.price_changed",
	services.CodeOrderState:           "svc.order_state",
	services.CodeIdempotencyMismatch:  "svc.idempotency_mismatch",
	services.CodeConflict:             "svc.conflict",
	services.CodePayloadTooLarge:      "svc.payload_too_large",
	services.CodeSeatNotInShow:        "svc.seat_not_in_show",
	services.CodeLimitExceeded:        "svc.limit_exceeded",
	services.CodeNotOnSale:            "svc.not_on_sale",
	services.CodeTicketTypeNotOffered: "svc.ticket_type_not_offered",
	services.CodeVoucherInvalid:       "svc.voucher_invalid",
	services.CodeRateLimited:          "svc.rate_limited",
	services.CodeUnavailable:          "svc.unavailable",
	services.CodeInternal:             "svc.internal",
}
