package web

import (
	"bytes"
	"errors"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/helmet"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/valyala/fasthttp"

	"seatflow/handlers"
	"seatflow/services"
)

// contentSecurityPolicy lets pages load scripts, styles, images and fonts from this
// site only: no inline script, no eval, no framing, forms post only here. Inline style
// attributes stay allowed: the seat maps place seats on a grid with them.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; " +
	"form-action 'self'; frame-ancestors 'none'"

// hstsValue is sent when the site is served over HTTPS (SEATFLOW_SECURE_COOKIES): a
// year, subdomains included.
const hstsValue = "max-age=31536000; includeSubDomains"

// setSecurityHeaders sets the same headers as securityHeaders on an answer the
// middleware never saw (errors raised by the server before routing).
func setSecurityHeaders(c *fiber.Ctx) {
	if c.GetRespHeader("Content-Security-Policy") != "" {
		return
	}
	c.Set("Content-Security-Policy", contentSecurityPolicy)
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderReferrerPolicy, "same-origin")
}

// securityHeaders sets the browser's defences on every answer (helmet): the content
// security policy, frame denial, nosniff, a same-origin referrer policy and, when
// secure is set (the site is behind HTTPS), Strict-Transport-Security.
func securityHeaders(secure bool) fiber.Handler {
	h := helmet.New(helmet.Config{
		ContentSecurityPolicy:     contentSecurityPolicy,
		XFrameOptions:             "DENY",
		ReferrerPolicy:            "same-origin",
		CrossOriginOpenerPolicy:   "same-origin",
		CrossOriginResourcePolicy: "same-origin",
		CrossOriginEmbedderPolicy: "unsafe-none",
		PermissionPolicy:          "camera=(), microphone=(), geolocation=(), payment=()",
	})
	if !secure {
		return h
	}
	return func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderStrictTransportSecurity, hstsValue)
		return h(c)
	}
}

// liveWriteTimeout gives a live seat map stream (/shows/<id>/live) and a waiting room's
// event stream (/api/v1/shows/<id>/queue/events) a write deadline as
// long as the stream lives; every other request keeps the server's WriteTimeout.
func liveWriteTimeout(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	p, _, _ := bytes.Cut(h.RequestURI(), []byte("?"))
	if bytes.HasPrefix(p, []byte("/shows/")) && bytes.HasSuffix(p, []byte("/live")) ||
		bytes.HasPrefix(p, []byte("/api/v1/shows/")) && bytes.HasSuffix(p, []byte("/queue/events")) {
		return fasthttp.RequestConfig{WriteTimeout: handlers.LiveStreamFor + time.Minute}
	}
	return fasthttp.RequestConfig{}
}

// maxHeaderBytes is the most request header bytes served (16 KiB: large cookies and an
// auth proxy's headers fit); readBufferBytes, the server's read buffer, is twice that so
// that a request a little over the limit is still read and answered in the shape of its
// address (headerLimit). A request whose headers overflow the buffer itself has no
// readable address: errorHandler answers it in the JSON API's shape.
const (
	maxHeaderBytes  = 16 << 10
	readBufferBytes = 2 * maxHeaderBytes
)

// headerLimit refuses a request whose headers are over maxHeaderBytes with 431: the
// contract's JSON on /api/, an error page elsewhere.
func headerLimit(c *fiber.Ctx) error {
	if len(c.Request().Header.RawHeaders()) > maxHeaderBytes {
		return fiber.NewError(fiber.StatusRequestHeaderFieldsTooLarge, "the request headers are larger than 16 KiB")
	}
	return c.Next()
}

// bodyLimit refuses with 413 a body over handlers.MaxBodyBytes on every route but
// those that take a hall's layout (handlers.TakesLayout), whose bodies may be up to
// handlers.MaxLayoutBodyBytes; the server itself refuses a body over that before it
// reads it (BodyLimit).
func bodyLimit(c *fiber.Ctx) error {
	limit := handlers.BodyLimit(c.Method(), c.Path())
	if c.Request().Header.ContentLength() > limit || len(c.Request().Body()) > limit {
		return fiber.ErrRequestEntityTooLarge
	}
	return c.Next()
}

// bodyLimitText is "the body is larger than 64 KiB" with the limit of method and path.
func bodyLimitText(method, path string) string {
	return "the body is larger than " + strconv.Itoa(handlers.BodyLimit(method, path)>>10) + " KiB"
}

// errorHandler is the app's error handler: the handlers' one, with the errors Fiber
// raises before a route runs (body over the limit, a request it cannot read) told in
// our words.
func errorHandler(c *fiber.Ctx, err error) error {
	// Errors Fiber raises before any middleware ran (a body or headers over the limit)
	// still carry the browser's defences, and API callers still get JSON.
	setSecurityHeaders(c)
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case fiber.StatusRequestEntityTooLarge:
			err = &services.Error{Code: services.CodePayloadTooLarge, Message: bodyLimitText(c.Method(), c.Path())}
			if c.Method() == fiber.MethodGet && c.Path() == "/" {
				// a chunked body over the limit: the server dropped the request line, so
				// the address is unknown; browsers never send chunked forms, API
				// clients do: answer in the contract's shape
				return c.Status(fe.Code).JSON(fiber.Map{"error": fiber.Map{"code": services.CodePayloadTooLarge,
					"message": "the body is larger than the limit (64 KiB; 256 KiB for a hall's layout)"}})
			}
		case fiber.StatusBadRequest:
			err = &services.Error{Code: services.CodeInvalidRequest, Message: "the request could not be read"}
		case fiber.StatusRequestHeaderFieldsTooLarge:
			if fe.Message == utils.StatusMessage(fe.Code) {
				// raised by the server before the request line was read: the address
				// is unknown, so answer in the JSON API's shape
				return c.Status(fe.Code).JSON(fiber.Map{"error": fiber.Map{"code": services.CodePayloadTooLarge,
					"message": "the request headers are larger than 16 KiB"}})
			}
		case fiber.StatusRequestTimeout:
			err = fiber.NewError(fe.Code, "the request took too long to arrive")
		}
	}
	return handlers.ErrorHandler(c, err)
}
