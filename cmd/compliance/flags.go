package main

import "flag"

// parseInterspersed parses args with fs, letting flags come before, between
// or after the positional arguments, which it returns in order. It fails as
// fs.Parse does on a bad flag.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for a := args; ; {
		if err := fs.Parse(a); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		a = fs.Args()[1:]
	}
}
