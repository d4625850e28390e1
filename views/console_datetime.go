package views

import "github.com/a-h/templ"

// describedByAttr is an aria-describedby attribute naming id, or none when id is empty.
func describedByAttr(id string) templ.Attributes {
	if id == "" {
		return templ.Attributes{}
	}
	return templ.Attributes{"aria-describedby": id}
}

// oobAttr marks an element for htmx to swap in out of band (oob), by its id.
func oobAttr(oob bool) templ.Attributes {
	if !oob {
		return templ.Attributes{}
	}
	return templ.Attributes{"hx-swap-oob": "true"}
}
