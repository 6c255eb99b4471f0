import { INestApplicationContext } from '@nestjs/common';
export async function runExport(_app: INestApplicationContext, _o: { output?: string; postTypes?: string }, _out: unknown): Promise<void> {}
