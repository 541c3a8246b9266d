/*-------------------------------------------------------------------------
 *
 * database_commands.h
 *	  CREATE DATABASE ... TEMPLATE and ALTER DATABASE RENAME of a database
 *	  whose streaming views are maintained.
 *
 * include/hummock_stream/entry/database_commands.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_ENTRY_DATABASE_COMMANDS_H
#define HS_ENTRY_DATABASE_COMMANDS_H

#include "nodes/parsenodes.h"

/*
 * Before the utility statement parsetree: if it is one of those commands
 * and the caller may run it, stop the manager of the database it needs
 * without connections and return that database's OID; else InvalidOid.
 */
extern Oid	HsDatabaseCommandBegin(Node *parsetree);

/*
 * After it succeeded (the caller asks for that database's manager again
 * when the transaction ends, committed or not): after a CREATE DATABASE,
 * copy the template's store into the new database, and return true if
 * there was one (the launcher is to start the new database's manager once
 * the command commits).
 */
extern bool HsDatabaseCommandDone(Node *parsetree, Oid dboid);

#endif							/* HS_ENTRY_DATABASE_COMMANDS_H */
