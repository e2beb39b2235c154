-- Run once by the postgres image on an empty data directory (mounted into /docker-entrypoint-initdb.d
-- by docker-compose.yml), as the superuser. Creates the role the service connects as: it owns the
-- application database and its public schema, so migrations can create and alter its tables, and is
-- nothing more — no superuser, no CREATEDB, no CREATEROLE, no replication, no RLS bypass. The
-- superuser's password stays with whoever administers PostgreSQL.
--
-- The names and the password come from the container's environment (\getenv, psql 15+), never from
-- this file or a command line.
\set ON_ERROR_STOP on
\getenv app_role POSTGRES_APP_USER
\getenv app_password POSTGRES_APP_PASSWORD
\getenv app_database POSTGRES_DB

CREATE ROLE :"app_role" LOGIN PASSWORD :'app_password'
  NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT;
ALTER DATABASE :"app_database" OWNER TO :"app_role";
REVOKE ALL ON DATABASE :"app_database" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"app_database" TO :"app_role";

\connect :"app_database"
ALTER SCHEMA public OWNER TO :"app_role";
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
