package handlers

import (
	"errors"
	"log/slog"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/views"
)

// statusOf maps a contract error code to its HTTP status (API.md, Errors).
var statusOf = map[string]int{
	services.CodeInvalidRequest:       fiber.StatusBadRequest,
	services.CodeResetTokenInvalid:    fiber.StatusBadRequest,
	services.CodeUnauthenticated:      fiber.StatusUnauthorized,
	services.CodeForbidden:            fiber.StatusForbidden,
	services.CodeNotAdmitted:          fiber.StatusForbidden,
	services.CodeNotFound:             fiber.StatusNotFound,
	services.CodeSeatTaken:            fiber.StatusConflict,
	services.CodeNoAdjacentSeats:      fiber.StatusConflict,
	services.CodeSingleSeatGap:        fiber.StatusConflict,
	services.CodeAlreadyAdmitted:      fiber.StatusConflict,
	services.CodeTicketNotValid:       fiber.StatusConflict,
	services.CodeWrongShow:            fiber.StatusConflict,
	services.CodeSoldOut:              fiber.StatusConflict,
	services.CodePriceChanged:         fiber.StatusConflict,
	services.CodeOrderState:           fiber.StatusConflict,
	services.CodeIdempotencyMismatch:  fiber.StatusConflict,
	services.CodeConflict:             fiber.StatusConflict,
	services.CodePayloadTooLarge:      fiber.StatusRequestEntityTooLarge,
	services.CodeSeatNotInShow:        fiber.StatusUnprocessableEntity,
	services.CodeLimitExceeded:        fiber.StatusUnprocessableEntity,
	services.CodeNotOnSale:            fiber.StatusUnprocessableEntity,
	services.CodeTicketTypeNotOffered: fiber.StatusUnprocessableEntity,
	services.CodeVoucherInvalid:       fiber.StatusUnprocessableEntity,
	services.CodeRateLimited:          fiber.StatusTooManyRequests,
	services.CodeUnavailable:          fiber.StatusServiceUnavailable,
	services.CodeInternal:             fiber.StatusInternalServerError,
}

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code        string   `json:"code"`
	Message     string   `json:"message"`
	Seats       []string `json:"seats,omitempty"`
	RetryAfterS int      `json:"retry_after_s,omitempty"`
}

// asError turns any error into a contract error: *services.Error as it is, a Fiber
// error by its status, anything else as 500 logged.
func asError(err error) (int, *services.Error) {
	var se *services.Error
	if errors.As(err, &se) {
		st, ok := statusOf[se.Code]
		if !ok {
			st = fiber.StatusInternalServerError
		}
		switch {
		case se.Code == services.CodeUnavailable:
			slog.Warn("unavailable", "message", se.Message, "err", se.Err)
		case st >= fiber.StatusInternalServerError:
			slog.Error("internal error", "code", se.Code, "message", se.Message, "err", se.Err)
		}
		return st, se
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		code := map[int]string{
			fiber.StatusRequestEntityTooLarge:       services.CodePayloadTooLarge,
			fiber.StatusRequestHeaderFieldsTooLarge: services.CodePayloadTooLarge,
			fiber.StatusNotFound:                    services.CodeNotFound,
			fiber.StatusMethodNotAllowed:            services.CodeInvalidRequest,
			fiber.StatusBadRequest:                  services.CodeInvalidRequest,
			fiber.StatusUnauthorized:                services.CodeUnauthenticated,
			fiber.StatusForbidden:                   services.CodeForbidden,
			fiber.StatusTooManyRequests:             services.CodeRateLimited,
		}[fe.Code]
		if code == "" {
			code = services.CodeInternal
		}
		msg := fe.Message
		if fe.Code == fiber.StatusNotFound {
			msg = "there is nothing at this address"
		}
		return fe.Code, &services.Error{Code: code, Message: msg}
	}
	slog.Error("unhandled error", "err", err)
	return fiber.StatusInternalServerError, &services.Error{Code: services.CodeInternal, Message: "something went wrong on our side; nothing was lost, try again"}
}

// jsonError writes err in the contract's error shape with its status, and the
// Retry-After header for rate limits.
func jsonError(c *fiber.Ctx, err error) error {
	st, se := asError(err)
	if se.RetryAfterS > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(se.RetryAfterS))
	}
	return c.Status(st).JSON(errorBody{Error: errorDetail{Code: se.Code, Message: se.Message, Seats: se.Seats, RetryAfterS: se.RetryAfterS}})
}

// ErrorHandler is the app's Fiber error handler: JSON in the contract's shape for
// /api/ paths, a plain page for the rest.
func ErrorHandler(c *fiber.Ctx, err error) error {
	if isAPI(c) {
		return jsonError(c, err)
	}
	st, se := asError(err)
	return renderErrorPage(c, st, serviceText(langOf(c), se, se.Message))
}

func isAPI(c *fiber.Ctx) bool {
	p := c.Path()
	return len(p) >= 5 && p[:5] == "/api/"
}

func invalid(format string, a ...any) error {
	return &services.Error{Code: services.CodeInvalidRequest, Message: sprintf(format, a...)}
}

// renderErrorPage answers with an HTML error page in the layout.
func renderErrorPage(c *fiber.Ctx, status int, msg string) error {
	c.Response().ResetBody() // a page that failed half way leaves nothing behind
	l := langOf(c)
	if msg == "" {
		msg = l.StatusTitle(status)
	}
	props := views.ErrorPageProps{Page: page(c, l.StatusTitle(status)), Status: status, Message: msg}
	if status == fiber.StatusTooManyRequests {
		props.RetryAfterS, _ = strconv.Atoi(string(c.Response().Header.Peek(fiber.HeaderRetryAfter)))
	}
	if c.Method() == fiber.MethodGet {
		if u, ok := localPath(string(c.Request().RequestURI())); ok {
			props.TryURL = strings.Clone(u)
		}
	}
	return render(c, status, views.ErrorPage(props))
}

// errorPage renders err as an error page with its contract status.
func errorPage(c *fiber.Ctx, err error) error {
	st, se := pageError(c, err)
	return renderErrorPage(c, st, serviceText(langOf(c), se, se.Message))
}

// pageError maps err to its status and message, and sets Retry-After for rate limits.
func pageError(c *fiber.Ctx, err error) (int, *services.Error) {
	st, se := asError(err)
	if se.RetryAfterS > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(se.RetryAfterS))
	}
	return st, se
}
