import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './standalone/app.module';
import { loadEnvironment } from './standalone/env';

async function bootstrap(): Promise<void> {
  let env;
  try {
    env = loadEnvironment();
  } catch (error) {
    // eslint-disable-next-line no-console
    console.error((error as Error).message);
    process.exit(1);
  }
  // The API parses bodies itself (size limits, rest_invalid_json), so Nest's body parser stays off.
  const app = await NestFactory.create<NestExpressApplication>(AppModule.fromEnvironment(env), { bodyParser: false });
  app.set('trust proxy', 'loopback');
  app.disable('x-powered-by');
  app.enableShutdownHooks();
  await app.listen(env.PORT);
  new Logger('cms-api').log(`Serving ${env.CMS_BASE_URL ?? `http://localhost:${env.PORT}`}/cms-json/`);
}

void bootstrap();
