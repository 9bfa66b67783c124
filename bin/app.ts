import { Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { buildApp } from '../lib/app.ts';

const { app } = buildApp();
// Every synth is checked; an unsuppressed finding is an error annotation and fails `cdk synth`.
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
Aspects.of(app).add(new ServerlessChecks({ verbose: true }));
app.synth();
