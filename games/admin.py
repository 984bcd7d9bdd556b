# Admin registrations for the games app.
