from ccreport.cli import main

main()
