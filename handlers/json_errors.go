package handlers

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// jsonProblem says in our words what is wrong with a JSON body the decoder refused:
// never the decoder's own text, which names Go types and struct fields.
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "the body is empty"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the body ends in the middle of a JSON value"
	case errors.As(err, &syntax):
		return "the body is not valid JSON (near byte " + strconv.FormatInt(syntax.Offset, 10) + ")"
	case errors.As(err, &typ):
		if typ.Field == "" {
			return "the body must be a JSON object, not " + jsonKind(typ.Value)
		}
		return "field " + strconv.Quote(typ.Field) + " must not be " + jsonKind(typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "the body has a field this endpoint does not know: " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return "the body is not valid JSON"
}

// jsonKind names a JSON value kind as the decoder reports it ("string", "number 1.5",
// "array", "object", "bool") in plain words.
func jsonKind(v string) string {
	switch {
	case v == "string":
		return "a string"
	case strings.HasPrefix(v, "number"):
		return "a number"
	case v == "array":
		return "a list"
	case v == "object":
		return "an object"
	case v == "bool":
		return "true or false"
	}
	return "a " + v
}
