DROP TABLE weekly_reports;
