package services

import "testing"

// TestOneLine_DropsControlsAndJoinsLines: C0 controls, DEL and C1 controls are dropped,
// line breaks and tabs (a run of them) become one space, invalid UTF-8 becomes U+FFFD,
// and clean text (Chinese included) comes back as it was.
func TestOneLine_DropsControlsAndJoinsLines(t *testing.T) {
	for in, want := range map[string]string{
		"Dune: Part Two":                      "Dune: Part Two",
		"沙丘 第二部":                              "沙丘 第二部",
		"Dune\x0b\x0cPart":                    "Dune Part",
		"a\x00b\x07c\x1bd\x7fe\u0080f\u009fg": "abcdefg",
		"line one\r\nline two":                "line one line two",
		"tab\there\u2028sep\u0085nel":         "tab here sep nel",
		"bad \xff byte":                       "bad \uFFFD byte",
		"Subject\r\nBcc: x@example.com":       "Subject Bcc: x@example.com",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
