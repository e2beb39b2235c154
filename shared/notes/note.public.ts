// What other components may use of the notes beyond their use cases (none imports note.repository.ts):
// account creation stores a new account's notes in its own transaction, as the notes endpoint's rows;
// the catalog lists the write's function (WRITE_NOTES) with the others planned once per connection.
export { insertNotes, type NewNote, WRITE_NOTES } from './note.repository';
