from padlint.cli import main

main()
