package services_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"seatflow/services"
	"seatflow/services/internal/testenv"
)

func TestCanonicalEmail(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string // want "" means refused
	}{
		{"lower case ASCII is kept", "anna@x.test", "anna@x.test"},
		{"upper case folds", "ANNA@X.Test", "anna@x.test"},
		{"surrounding white space is trimmed", " \tanna@x.test\r\n", "anna@x.test"},
		{"full-width letters fold to ASCII", "ａｎｎａ@ｘ.ｔｅｓｔ", "anna@x.test"},
		{"full-width capitals fold to ASCII", "ＡＮＮＡ@x.test", "anna@x.test"},
		{"full-width at sign is an at sign", "anna＠x.test", "anna@x.test"},
		{"mathematical letters fold to ASCII", "\U0001D400nna@x.test", "anna@x.test"},
		{"accent is kept distinct", "ánna@x.test", "ánna@x.test"},
		{"umlaut is kept distinct", "änna@x.test", "änna@x.test"},
		{"accented capital folds to accented small", "ÁNNA@x.test", "ánna@x.test"},
		{"decomposed accent composes", "a\u0301nna@x.test", "ánna@x.test"},
		{"sharp s folds fully", "Straße@x.test", "strasse@x.test"},
		{"final sigma folds", "ΑΣ@x.test", "ασ@x.test"},
		{"zero-width space refused", "an\u200bna@x.test", ""},
		{"zero-width space at the end refused", "anna@x.test\u200b", ""},
		{"zero-width joiner refused", "an\u200dna@x.test", ""},
		{"zero-width non-joiner refused", "an\u200cna@x.test", ""},
		{"word joiner refused", "an\u2060na@x.test", ""},
		{"byte order mark refused", "\ufeffanna@x.test", ""},
		{"soft hyphen refused", "an\u00adna@x.test", ""},
		{"bidi override refused", "\u202eanna@x.test", ""},
		{"bidi isolate refused", "anna\u2066@x.test", ""},
		{"right-to-left mark refused", "anna@x\u200f.test", ""},
		{"Arabic letter mark refused", "anna\u061c@x.test", ""},
		{"tag character refused", "anna\U000E0041@x.test", ""},
		{"variation selector refused", "anna\ufe0f@x.test", ""},
		{"combining grapheme joiner refused", "an\u034fna@x.test", ""},
		{"Hangul filler refused", "anna\u3164@x.test", ""},
		{"blank Braille pattern refused", "anna\u2800@x.test", ""},
		{"NUL refused", "anna\x00@x.test", ""},
		{"DEL refused", "anna\x7f@x.test", ""},
		{"C1 control refused", "anna\u0085@x.test", ""},
		{"inner space refused", "an na@x.test", ""},
		{"no-break space refused", "anna\u00a0@x.test", ""},
		{"ideographic space refused", "anna@x.test\u3000x", ""},
		{"private use refused", "anna\ue000@x.test", ""},
		{"unassigned code point refused", "anna\U000E0080@x.test", ""},
		{"noncharacter refused", "anna\ufdd0@x.test", ""},
		{"spacing diaeresis refused (normalises to a space)", "anna\u00a8@x.test", ""},
		{"invalid UTF-8 refused", "anna\xff@x.test", ""},
		{"no at sign refused", "anna.x.test", ""},
		{"two at signs refused", "anna@x@x.test", ""},
		{"full-width second at sign refused", "anna@x＠x.test", ""},
		{"empty local part refused", "@x.test", ""},
		{"empty domain refused", "anna@", ""},
		{"empty refused", "", ""},
		{"white space only refused", "  ", ""},
		{"254 bytes accepted", strings.Repeat("a", 64) + "@" + strings.Repeat("b", 189), strings.Repeat("a", 64) + "@" + strings.Repeat("b", 189)},
		{"255 bytes refused", strings.Repeat("a", 64) + "@" + strings.Repeat("b", 190), ""},
		{"255 bytes that normalise to 254 accepted", "Ａ" + strings.Repeat("a", 62) + "@" + strings.Repeat("b", 189), strings.Repeat("a", 63) + "@" + strings.Repeat("b", 189)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := services.CanonicalEmail(tc.in)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("CanonicalEmail(%+q) = %+q, want refused", tc.in, got)
				}
				if services.ErrorCode(err) != services.CodeInvalidRequest || !strings.Contains(err.Error(), "not a usable email address") {
					t.Fatalf("CanonicalEmail(%+q): %v, want INVALID_REQUEST not a usable email address", tc.in, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("CanonicalEmail(%+q) = %+q, %v; want %+q", tc.in, got, err, tc.want)
			}
		})
	}
}

// FuzzCanonicalEmail checks the properties every canonical form has. Run it with
// go test ./services -run '^$' -fuzz FuzzCanonicalEmail; plain go test runs the seeds.
func FuzzCanonicalEmail(f *testing.F) {
	for _, s := range []string{"anna@x.test", "ＡＮＮＡ@x.test", "ánna@x.test", "a\u0301nna@x.test", "an\u200bna@x.test"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := services.CanonicalEmail(in)
		if err != nil {
			if services.ErrorCode(err) != services.CodeInvalidRequest {
				t.Fatalf("CanonicalEmail(%+q): %v, want INVALID_REQUEST", in, err)
			}
			return
		}
		if !utf8.ValidString(got) || len(got) > services.MaxEmailBytes || got == "" {
			t.Fatalf("CanonicalEmail(%+q) = %+q: invalid UTF-8, empty or too long", in, got)
		}
		if strings.Count(got, "@") != 1 || strings.HasPrefix(got, "@") || strings.HasSuffix(got, "@") {
			t.Fatalf("CanonicalEmail(%+q) = %+q: not one @ between two non-empty parts", in, got)
		}
		if !services.UsableEmailRunes(got) {
			t.Fatalf("CanonicalEmail(%+q) = %+q: contains an invisible, control or space character", in, got)
		}
		if !norm.NFC.IsNormalString(got) || !norm.NFKC.IsNormalString(got) {
			t.Fatalf("CanonicalEmail(%+q) = %+q: not NFC/NFKC", in, got)
		}
		if again, err := services.CanonicalEmail(got); err != nil || again != got {
			t.Fatalf("CanonicalEmail is not idempotent: %+q -> %+q -> %+q, %v", in, got, again, err)
		}
		if up, err := services.CanonicalEmail(strings.ToUpper(got)); err == nil && isASCII(got) && up != got {
			t.Fatalf("upper case of ASCII %+q canonicalises to %+q", got, up)
		}
		if wide, err := services.CanonicalEmail(testenv.FullWidth(got)); err != nil || wide != got {
			t.Fatalf("full-width spelling of %+q canonicalises to %+q, %v", got, wide, err)
		}
		mid := len(got) / 2
		for mid > 0 && !utf8.RuneStart(got[mid]) {
			mid--
		}
		if z, err := services.CanonicalEmail(got[:mid] + "\u200b" + got[mid:]); err == nil {
			t.Fatalf("a zero-width space inside %+q is accepted as %+q", got, z)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
