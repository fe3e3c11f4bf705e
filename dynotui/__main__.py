from dynotui.cli.main import main

raise SystemExit(main())
