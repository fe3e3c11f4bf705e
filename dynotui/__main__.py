from dynotui.cli.entry import main

raise SystemExit(main())
