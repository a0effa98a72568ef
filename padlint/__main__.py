from padlint.cli.main import main

main()
