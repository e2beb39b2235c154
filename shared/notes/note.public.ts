// What other components may use of the notes beyond their use cases (none imports note.repository.ts):
// account creation stores a new account's notes in its own transaction, as the notes endpoint's rows.
export { insertNotes, type NewNote } from './note.repository';
