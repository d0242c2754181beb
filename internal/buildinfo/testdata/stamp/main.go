// Command stamp prints buildinfo.Read's line, for the package's test of
// the linker's stamp.
package main

import (
	"fmt"

	"github.com/nqueens-gpu/nqueens-gpu/internal/buildinfo"
)

func main() {
	i := buildinfo.Read("")
	fmt.Println(i.Commit, i.Modified, i.Short())
}
