package handlers

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"seatflow/services/orders"
)

// TestJSONErrors_InOurWords: a malformed or mistyped body is refused with a message that
// says what is wrong in the API's words, never the Go decoder's text (struct fields, Go
// types, "json:" prefixes).
func TestJSONErrors_InOurWords(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"empty", ``, "the body is empty"},
		{"truncated", `{"seat_ids":["1"`, "ends in the middle"},
		{"syntax", `{"seat_ids":[1,}`, "not valid JSON"},
		{"array", `[1,2]`, "must be a JSON object, not a list"},
		{"string", `"x"`, "must be a JSON object, not a string"},
		{"wrong field type", `{"title":"Dune","runtime_min":"long"}`, `field "runtime_min" must not be a string`},
		{"unknown field", `{"title":"Dune","runtime_min":90,"x":1}`, `does not know: "x"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var v struct {
				Title      string `json:"title"`
				RuntimeMin int    `json:"runtime_min"`
			}
			msgs := []string{}
			if err := decodeStrict([]byte(tc.body), &v); err != nil {
				msgs = append(msgs, jsonProblem(err))
			}
			var req orders.CreateOrderRequest
			if tc.name != "wrong field type" && tc.name != "unknown field" {
				if err := parseOrderBody([]byte(tc.body), &req); err != nil {
					msgs = append(msgs, errMessage(err))
				} else {
					t.Fatalf("order body %q accepted", tc.body)
				}
			}
			if len(msgs) == 0 {
				t.Fatalf("body %q accepted", tc.body)
			}
			for _, m := range msgs {
				if !strings.Contains(m, tc.want) {
					t.Errorf("message %q does not say %q", m, tc.want)
				}
				for _, leak := range []string{"Go struct", "json:", "unmarshal", "Go value", "main.", "handlers."} {
					if strings.Contains(m, leak) {
						t.Errorf("message %q leaks decoder text %q", m, leak)
					}
				}
			}
		})
	}
}

func decodeStrict(body []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	return d.Decode(v)
}
