from games.cli import main

raise SystemExit(main())
