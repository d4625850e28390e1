package services

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCheckText walks the characters a staff text field refuses and the ones it keeps,
// in both kinds of field.
func TestCheckText(t *testing.T) {
	refused := map[string]string{
		"NUL": "\x00", "vertical tab": "\x0b", "form feed": "\x0c", "escape": "\x1b", "DEL": "\x7f",
		"NEL U+0085": "\u0085", "C1 U+009B": "\u009b", "line separator": "\u2028", "paragraph separator": "\u2029",
		"RLO U+202E": "\u202e", "LRE U+202A": "\u202a", "RLI U+2067": "\u2067", "PDI U+2069": "\u2069",
		"invalid UTF-8": "\xff",
	}
	for name, c := range refused {
		for _, lines := range []TextLines{SingleLine, MultiLine} {
			t.Run(name, func(t *testing.T) {
				err := CheckText("title", "Arrival"+c+"Part Two", lines)
				if ErrorCode(err) != CodeInvalidRequest || !strings.HasPrefix(err.(*Error).Message, "title ") {
					t.Fatalf("%q (multi-line %v): %v, want INVALID_REQUEST naming the field", c, lines, err)
				}
			})
		}
	}
	for _, c := range []string{"\t", "\n", "\r\n"} {
		if err := CheckText("name", "a"+c+"b", SingleLine); ErrorCode(err) != CodeInvalidRequest {
			t.Errorf("%q in a single-line field: %v, want INVALID_REQUEST", c, err)
		}
		if err := CheckText("layout", "SS"+c+"SS", MultiLine); err != nil {
			t.Errorf("%q in a multi-line field: %v", c, err)
		}
	}
	for _, ok := range []string{"", "Arrival", "Le Fabuleux Destin d'Amélie Poulain", "千与千寻", "👨‍👩‍👧 family 🎬",
		"שלום\u200f!", "a\u200eb", "full-width ＡＢＣ", "quote \" and \\ backslash"} {
		if err := CheckText("title", ok, SingleLine); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	err := CheckText("reason", "ab\x0bc", SingleLine)
	if msg := err.(*Error).Message; !strings.Contains(msg, "U+000B") || !strings.Contains(msg, "character 3") {
		t.Errorf("message %q does not name the character and its place", msg)
	}
}

// TestSearchableOrderNo: full-width digits and letters fold to ASCII; anything that
// cannot be an order number afterwards is no match.
func TestSearchableOrderNo(t *testing.T) {
	for in, want := range map[string]string{
		"0MX3OBEADINZHTY": "0MX3OBEADINZHTY", " 0MX3OBEADINZHTY\t": "0MX3OBEADINZHTY",
		"０ＭＸ３ＯＢＥＡＤＩＮＺＨＴＹ": "0MX3OBEADINZHTY", "１２３": "123",
	} {
		if got, ok := SearchableOrderNo(in); !ok || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", " ", "é", "😀", "选座", "a\x00b", "a b", "\xff", strings.Repeat("9", 33), strings.Repeat("é", 10000)} {
		if got, ok := SearchableOrderNo(in); ok {
			t.Errorf("%q: %q, want no match", in, got)
		}
	}
}

// FuzzCheckText: CheckText never panics, refuses exactly the values holding a refused
// rune, and SearchableOrderNo only returns printable ASCII.
func FuzzCheckText(f *testing.F) {
	for _, s := range []string{"Arrival", "a\x0bb", "\u202e", "１２３", "\xff", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := CheckText("f", s, SingleLine)
		bad := !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return refusedRune(r, SingleLine) != "" })
		if (err != nil) != bad {
			t.Fatalf("%q: %v (refused rune or bad UTF-8: %v)", s, err, bad)
		}
		if no, ok := SearchableOrderNo(s); ok {
			for i := 0; i < len(no); i++ {
				if no[i] <= ' ' || no[i] >= 0x7f {
					t.Fatalf("%q gave %q", s, no)
				}
			}
		}
	})
}
