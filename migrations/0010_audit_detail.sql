-- What an audit row cannot say in its other columns, as JSON: the clients whose records a list or search
-- returned ({"patients":[…]}), the email a sign-in tried ({"email":"…"}). Covered by the row's hash.
ALTER TABLE `audit_log` ADD `detail` text;
