from garage_tools.cli import main

main()
