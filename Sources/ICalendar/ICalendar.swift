// ICalendar module.
