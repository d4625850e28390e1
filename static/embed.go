// Package static holds the CSS, images and vendored JavaScript served under /static.
// vendor/ is filled at build time from npm (make static); it is not committed.
package static

import "embed"

// FS holds css/, js/ (the pages' own scripts), the site icon (img/favicon.svg) and vendor/.
//
//go:embed css js img/favicon.svg all:vendor
var FS embed.FS
