// Package static holds the CSS, images and vendored JavaScript served under /static.
// vendor/ is filled at build time from npm (make static); it is not committed.
package static

import "embed"

// FS holds css/, js/ (the pages' own scripts) and vendor/.
//
//go:embed css js all:vendor
var FS embed.FS
