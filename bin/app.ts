import { Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildApp } from '../lib/app.ts';

const { app } = buildApp();
// Every synth is checked; an unsuppressed finding is an error annotation and fails `cdk synth`.
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
app.synth();
