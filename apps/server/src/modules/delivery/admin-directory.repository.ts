import type { Db } from '../../db/database.js';

const INSTITUTION_COLUMNS = [
  'id',
  'code',
  'name',
  'token',
  'viewType',
  'logoPath',
  'supportEmail',
  'supportPhoneNumber',
  'supportWhatsappNumber',
] as const;

export function institutionById(db: Db, id: string) {
  return db.selectFrom('institutions').select(INSTITUTION_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function allInstitutions(db: Db) {
  return db.selectFrom('institutions').select(INSTITUTION_COLUMNS).orderBy('name').execute();
}

export function userByEmail(db: Db, email: string) {
  return db
    .selectFrom('users')
    .select(['id', 'type', 'email', 'name', 'active', 'disabled', 'language', 'institutionId'])
    .where('email', '=', email)
    .executeTakeFirst();
}

/** The tags a user belongs to, with their institution's name and whether it is his favourite. */
export function tagsOfUser(db: Db, userId: string) {
  return db
    .selectFrom('tagMembers as m')
    .innerJoin('tags as t', 't.id', 'm.tagId')
    .innerJoin('institutions as i', 'i.id', 't.institutionId')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select(['t.id', 't.tag', 't.institutionId', 'i.name as institutionName', 'u.favoriteTagId'])
    .where('m.userId', '=', userId)
    .orderBy('t.tag')
    .execute();
}
