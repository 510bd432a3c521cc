"""Never runs: the test cancels the job while this package is being installed."""
