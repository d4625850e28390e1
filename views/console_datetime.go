package views

import "github.com/a-h/templ"

// describedByAttr is an aria-describedby attribute naming id, or none when id is empty.
func describedByAttr(id string) templ.Attributes {
	if id == "" {
		return templ.Attributes{}
	}
	return templ.Attributes{"aria-describedby": id}
}
